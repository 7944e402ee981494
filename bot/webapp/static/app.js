// The Mini App's page: connects to the table named by the start token and draws what the
// server sends. See PROTOCOL.md for the frames and the data-* contract.

import { setClock } from "./clock.js";
import { Connection } from "./connection.js";
import { role, show } from "./dom.js";
import { render } from "./render.js";
import {
  applyTheme, fitTelegram, haptic, loadWebApp, offerHomeScreen, socketUrl, startToken,
} from "./telegram.js";
import { isLang, pickLang, word } from "./words.js";

const NOTICE_MS = 5000;
// a press the server never answered (it always does) stops blocking taps after this long
const PRESS_WAIT_MS = 8000;

const page = {
  webApp: null,
  lang: "en",
  texts: null,
  connection: null,
  version: null, // the version shown; null before the first state of a connection
  pending: false,
  pendingTimer: null,
  yourTurn: false,
  notice: { timer: null, version: null, final: false },
};

function t(key) {
  return word(page.lang, key, page.texts);
}

/** Shows a refusal (or the page's own trouble, or with info the server's answer to a
 * press) in data-role="notice", an overlay that moves nothing on the page. */
function showNotice(text, { final = false, info = false } = {}) {
  const el = role("notice");
  el.textContent = text;
  el.classList.toggle("info", info);
  show(el, true);
  clearTimeout(page.notice.timer);
  page.notice.version = page.version;
  page.notice.final = final;
  if (!final) page.notice.timer = setTimeout(hideNotice, NOTICE_MS);
}

function hideNotice() {
  if (page.notice.final) return;
  clearTimeout(page.notice.timer);
  show(role("notice"), false);
}

function showConnection(text) {
  const el = role("connection");
  el.textContent = text;
  show(el, Boolean(text));
}

function settlePress() {
  page.pending = false;
  clearTimeout(page.pendingTimer);
  document.body.classList.remove("busy");
}

/** A tap: the button's press, at the version on screen, sent once. */
function press(pressString) {
  if (page.pending || page.version === null || !page.connection?.ready) return;
  haptic(page.webApp, "impact", "light");
  if (!page.connection.send({ t: "press", press: pressString, v: page.version })) return;
  page.pending = true;
  document.body.classList.add("busy");
  page.pendingTimer = setTimeout(settlePress, PRESS_WAIT_MS);
}

/** A tap on a greyed card: why it cannot go, said on the page alone. */
function refused(text) {
  showNotice(text);
  haptic(page.webApp, "notification", "error");
}

function onState(state) {
  if (typeof state.v !== "number") return;
  // states come in version order on one connection; a stale one is ignored (a choice shown
  // to this page alone comes at the version it is about)
  if (page.version !== null && state.v < page.version) return;
  const newer = page.notice.version === null || state.v > page.notice.version;
  page.version = state.v;
  if (isLang(state.lang)) page.lang = state.lang;
  page.texts = state.texts ?? null;
  render(state, { lang: page.lang, press, refused });
  offerInvite(Boolean(state.share));
  setClock(state.table?.deadline_ms ?? null, state.table?.server_ms ?? null);
  showConnection("");
  if (newer) hideNotice();
  const yourTurn = Boolean(state.hand?.your_turn);
  if (yourTurn && !page.yourTurn) haptic(page.webApp, "notification", "success");
  page.yourTurn = yourTurn;
}

function onFrame(frame) {
  switch (frame.t) {
    case "state":
      onState(frame);
      break;
    case "ack":
      settlePress();
      // every answer is shown: "You are seated", "Sent to your private chat"...
      if (typeof frame.text === "string" && frame.text) showNotice(frame.text, { info: true });
      break;
    case "share":
      // the prepared invitation: Telegram asks the user which chat to send it to
      if (typeof frame.id === "string" && frame.id) {
        try {
          page.webApp.shareMessage(frame.id);
        } catch {
          // a client that cannot share: nothing was sent anywhere
        }
      }
      break;
    case "notice":
      settlePress();
      showNotice(frame.text || frame.reason || "");
      haptic(page.webApp, "notification", "error");
      break;
    case "error":
      page.connection.stop();
      showConnection("");
      showNotice(frame.text || t(frame.reason === "no_table" ? "no_table" : "no_telegram"), { final: true });
      haptic(page.webApp, "notification", "error");
      break;
    default:
      break; // pong, and whatever a newer server may add
  }
}

/** "Invite": where the table has a link to share and the client can share (Bot API 8.0). */
function offerInvite(available) {
  const button = role("invite");
  const can = available && page.webApp?.isVersionAtLeast?.("8.0")
    && typeof page.webApp.shareMessage === "function";
  button.textContent = t("invite");
  show(button, Boolean(can));
}

function invite() {
  if (page.connection?.ready) page.connection.send({ t: "share" });
}

function onDown(stopped, code) {
  settlePress();
  page.version = null;
  if (!stopped) {
    showConnection(t("reconnecting"));
    return;
  }
  showConnection("");
  if (!page.notice.final) {
    const key = { 4404: "no_table", 4429: "too_many" }[code] ?? "no_telegram";
    showNotice(t(key), { final: true });
  }
}

/** The move bar is fixed at the bottom: the page keeps room under its end for it. */
function keepBarRoom() {
  const bar = role("actions");
  const set = () => document.documentElement.style.setProperty("--bar-h", `${bar.hidden ? 0 : bar.offsetHeight}px`);
  new ResizeObserver(set).observe(bar);
  new MutationObserver(set).observe(bar, { attributes: true, attributeFilter: ["hidden"] });
  set();
}

async function main() {
  showConnection(word(pickLang(navigator.language), "connecting"));
  const webApp = await loadWebApp();
  page.webApp = webApp;
  page.lang = pickLang(webApp?.initDataUnsafe?.user?.language_code ?? navigator.language);
  applyTheme(webApp);
  webApp?.onEvent?.("themeChanged", () => applyTheme(webApp));
  webApp?.ready?.();
  webApp?.expand?.();
  fitTelegram(webApp);
  offerHomeScreen(webApp, document.querySelector('[data-role="home-screen"]'), t("home_screen"));
  role("invite").addEventListener("click", invite);
  keepBarRoom();
  showConnection(t("connecting"));

  if (!webApp?.initData) {
    showConnection("");
    showNotice(t("no_telegram"), { final: true });
    return;
  }
  const token = startToken(webApp, location.href);
  if (!token) {
    showConnection("");
    showNotice(t("no_token"), { final: true });
    return;
  }
  page.connection = new Connection(
    socketUrl(location.href),
    { t: "hello", init_data: webApp.initData, start: token },
    { frame: onFrame, down: onDown },
  );
  page.connection.start();
}

main();
