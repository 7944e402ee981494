// The move clock, counted down locally from the state's deadline, corrected for the gap
// between the server's clock and this device's.

import { role } from "./dom.js";

let deadline = null; // on this device's clock, epoch ms
let timer = null;

/** Starts (or stops, with deadline_ms null) the countdown of data-role="clock". */
export function setClock(deadlineMs, serverMs) {
  const skew = typeof serverMs === "number" ? Date.now() - serverMs : 0;
  deadline = typeof deadlineMs === "number" ? deadlineMs + skew : null;
  clearInterval(timer);
  timer = deadline === null ? null : setInterval(tick, 250);
  tick();
}

function tick() {
  const el = role("clock");
  if (deadline === null) {
    el.hidden = true;
    el.textContent = "";
    delete el.dataset.seconds;
    return;
  }
  const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  el.hidden = false;
  el.dataset.seconds = String(left);
  el.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  el.classList.toggle("urgent", left <= 10);
  if (left === 0) clearInterval(timer);
}
