// Telegram's side of the page: the WebApp object, its theme, haptics and the start token.
//
// Telegram's clients inject nothing by themselves: a real Mini App gets window.Telegram.WebApp
// from Telegram's own script. Tests (and any host that defines it first) inject the object
// before the page runs, so the script is fetched only when the object is missing, and a
// machine that cannot reach telegram.org goes on without it after a short wait.

const TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js";

/** The WebApp object, loading Telegram's script only when it is not defined yet. */
export function loadWebApp(timeoutMs = 5000) {
  const existing = window.Telegram?.WebApp;
  if (existing) return Promise.resolve(existing);
  return new Promise((resolve) => {
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(window.Telegram?.WebApp ?? null);
    };
    const timer = setTimeout(settle, timeoutMs);
    const script = document.createElement("script");
    script.src = TELEGRAM_SCRIPT;
    script.async = true;
    script.addEventListener("load", settle);
    script.addEventListener("error", settle);
    document.head.append(script);
  });
}

/**
 * Telegram's own frame around the page in the page's colours, and no swipe-to-close while
 * fanning through a hand, on clients new enough for them.
 */
export function fitTelegram(webApp) {
  try {
    if (webApp?.isVersionAtLeast?.("6.1")) {
      webApp.setHeaderColor?.("secondary_bg_color");
      webApp.setBackgroundColor?.("secondary_bg_color");
    }
    if (webApp?.isVersionAtLeast?.("7.7")) webApp.disableVerticalSwipes?.();
  } catch {
    // an older client draws its own colours: the page works all the same
  }
  fillScreen(webApp);
}

/**
 * A button that puts the table on the phone's home screen (Bot API 8.0: addToHomeScreen),
 * shown only where the client can and the shortcut is not there yet.
 */
export function offerHomeScreen(webApp, button, label) {
  if (!button || !webApp?.isVersionAtLeast?.("8.0") || typeof webApp.addToHomeScreen !== "function") return;
  button.textContent = label;
  const hide = () => { button.hidden = true; };
  try {
    webApp.onEvent?.("homeScreenAdded", hide);
    button.addEventListener("click", () => webApp.addToHomeScreen());
    if (typeof webApp.checkHomeScreenStatus === "function") {
      webApp.checkHomeScreenStatus((status) => { button.hidden = !["missed", "unknown"].includes(status); });
    } else {
      button.hidden = false;
    }
  } catch {
    hide();
  }
}

const PHONES = new Set(["android", "ios"]);
const SIDES = ["top", "bottom", "left", "right"];

/**
 * On a phone, the whole screen for the table (Bot API 8.0: requestFullscreen), with
 * Telegram's safe areas (the system's, and Telegram's own controls over a full-screen app)
 * as CSS variables --tg-safe-area-inset-* and --tg-content-safe-area-inset-*, kept current.
 * An older client, or a desktop one, keeps its usual frame and sets none of them.
 */
function fillScreen(webApp) {
  if (!webApp?.isVersionAtLeast?.("8.0")) return;
  const insets = () => {
    const root = document.documentElement;
    for (const [prefix, inset] of [
      ["--tg-safe-area-inset", webApp.safeAreaInset],
      ["--tg-content-safe-area-inset", webApp.contentSafeAreaInset],
    ]) {
      for (const side of SIDES) {
        const value = Number(inset?.[side]);
        if (Number.isFinite(value) && value >= 0) root.style.setProperty(`${prefix}-${side}`, `${value}px`);
      }
    }
  };
  try {
    insets();
    for (const name of ["safeAreaChanged", "contentSafeAreaChanged", "fullscreenChanged"]) {
      webApp.onEvent?.(name, insets);
    }
    if (PHONES.has(webApp.platform) && !webApp.isFullscreen) webApp.requestFullscreen?.();
  } catch {
    // a client that refuses full screen keeps the page in its usual frame
  }
}

const COLOUR = /^#[0-9a-f]{3,8}$/i;
let themeKeys = [];

/** Telegram's theme as CSS variables (--tg-theme-bg-color, ...) and the colour scheme. */
export function applyTheme(webApp) {
  const root = document.documentElement;
  for (const key of themeKeys) root.style.removeProperty(key);
  themeKeys = [];
  for (const [name, value] of Object.entries(webApp?.themeParams ?? {})) {
    if (typeof value !== "string" || !COLOUR.test(value)) continue;
    const key = `--tg-theme-${name.replaceAll("_", "-")}`;
    root.style.setProperty(key, value);
    themeKeys.push(key);
  }
  root.dataset.scheme = webApp?.colorScheme === "dark" ? "dark" : "light";
}

/** One haptic signal, where the client has them: ("impact", "light"), ("notification", "error"). */
export function haptic(webApp, kind, style) {
  const feedback = webApp?.HapticFeedback;
  if (!feedback) return;
  try {
    if (kind === "impact") feedback.impactOccurred?.(style);
    else feedback.notificationOccurred?.(style);
  } catch {
    // an old client without haptics: nothing to feel
  }
}

const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The table's start token: from the init data's start_param (a direct link), else the URL's
 * tgWebAppStartParam, else its startapp parameter (a web_app button's own URL). The first
 * one present decides; null when none is there or it is not a token at all.
 */
export function startToken(webApp, href) {
  const query = new URL(href).searchParams;
  const found = [webApp?.initDataUnsafe?.start_param, query.get("tgWebAppStartParam"), query.get("startapp")]
    .find((value) => typeof value === "string" && value !== "");
  return found !== undefined && TOKEN.test(found) ? found : null;
}

/** The page's socket: <page path>/ws on the same origin, ws:// or wss:// as the page. */
export function socketUrl(href) {
  const page = new URL(href);
  const base = new URL(page.pathname.replace(/\/?$/, "/"), page.origin);
  const url = new URL("ws", base);
  url.protocol = page.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}
