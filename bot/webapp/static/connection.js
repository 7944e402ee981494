// The live channel to the server: hello first, then states in and presses out. It reconnects
// by itself with backoff (0.5 s, 1 s, 2 s ... at most 5 s) and says hello again; a press is
// sent at most once and never replayed after a reconnect.

const PING_MS = 25000;
const BACKOFF_MS = [500, 1000, 2000, 4000, 5000];
// the server's refusals of the hello (unauthorized, no table, too many pages): trying again
// would only be refused again
const FINAL_CLOSE = new Set([4401, 4404, 4429]);

export class Connection {
  /**
   * url: the socket's address; hello: the first frame; handlers: {frame(f), down(final, code)}.
   */
  constructor(url, hello, handlers) {
    this.url = url;
    this.hello = hello;
    this.handlers = handlers;
    this.socket = null;
    this.failures = 0;
    this.stopped = false;
    this.pingTimer = null;
    this.retryTimer = null;
    this.heard = true; // anything from the server since the last ping
  }

  start() {
    this.stopped = false;
    // back from the background or back online: try at once instead of waiting out the backoff
    const nudge = () => {
      if (!this.socket && !this.stopped && document.visibilityState !== "hidden") {
        clearTimeout(this.retryTimer);
        this.open();
      }
    };
    window.addEventListener("online", nudge);
    document.addEventListener("visibilitychange", nudge);
    this.open();
  }

  /** No more reconnecting (the server said no for good). */
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
  }

  /** Whether a frame could be sent now. */
  get ready() {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  /** Sends a frame if the socket is open; false when it is not (nothing is queued). */
  send(frame) {
    if (!this.ready) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  open() {
    const socket = new WebSocket(this.url);
    this.socket = socket;
    this.heard = true;
    socket.addEventListener("open", () => {
      if (this.socket !== socket) return;
      socket.send(JSON.stringify(this.hello));
      this.pingTimer = setInterval(() => this.ping(socket), PING_MS);
    });
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket) return;
      this.heard = true;
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!frame || typeof frame !== "object" || typeof frame.t !== "string") return;
      // the backoff starts over once the server has really let us in
      if (frame.t === "state") this.failures = 0;
      this.handlers.frame(frame);
    });
    socket.addEventListener("close", (event) => this.lost(socket, event.code));
  }

  ping(socket) {
    // a whole ping period without a word (not even the last ping's pong): the line is dead
    // even if the socket has not noticed yet
    if (!this.heard) {
      this.lost(socket, 1006);
      try {
        socket.close();
      } catch {
        // closing a dead socket may fail: it is dropped all the same
      }
      return;
    }
    this.heard = false;
    this.send({ t: "ping" });
  }

  lost(socket, code) {
    if (this.socket !== socket) return;
    clearInterval(this.pingTimer);
    this.socket = null;
    if (FINAL_CLOSE.has(code)) this.stopped = true;
    this.handlers.down?.(this.stopped, code);
    if (this.stopped) return;
    const delay = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)];
    this.failures += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }
}
