// Small DOM helpers. Every text from the server goes in as text, never as markup: names
// and labels are typed by users.

const SVG_NS = "http://www.w3.org/2000/svg";

/** An element: h("div", {class: "x", "data-role": "y"}, child, "text", ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** An SVG element, same shape as h(). */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

/** Replaces el's children, leaving out the empty ones (null, undefined, false): the DOM's
 * own replaceChildren would print them as the words "null" and "undefined". */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** The element of a data-role inside the page. */
export function role(name, root = document) {
  return root.querySelector(`[data-role="${name}"]`);
}

/** Shows or hides an element (the hidden attribute). */
export function show(el, visible) {
  el.hidden = !visible;
}

// The chat's texts use Telegram's HTML subset (<b>Take</b>); the page keeps the harmless
// inline tags and turns everything else into plain text.
const INLINE = new Set(["B", "STRONG", "I", "EM", "U", "INS", "S", "STRIKE", "DEL", "CODE"]);

/** Fills el with a text that may carry Telegram's inline HTML, safely. */
export function rich(el, text) {
  el.replaceChildren();
  if (!text) return el;
  if (!/[<&]/.test(text)) {
    el.textContent = text;
    return el;
  }
  const doc = new DOMParser().parseFromString(`<body>${text}</body>`, "text/html");
  el.append(...copyInline(doc.body));
  return el;
}

function copyInline(node) {
  const out = [];
  for (const child of node.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) {
      out.push(document.createTextNode(child.textContent));
    } else if (child.nodeType === Node.ELEMENT_NODE) {
      if (INLINE.has(child.tagName)) {
        const el = document.createElement(child.tagName.toLowerCase());
        el.append(...copyInline(child));
        out.push(el);
      } else {
        out.push(...copyInline(child));
      }
    }
  }
  return out;
}
