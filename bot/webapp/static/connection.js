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
   * url: the socket's address; hello: the first frame; handlers: {frame(f), up(), down()}.
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
  }

  start() {
    this.stopped = false;
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
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify(this.hello));
      this.pingTimer = setInterval(() => this.send({ t: "ping" }), PING_MS);
      this.handlers.up?.();
    });
    socket.addEventListener("message", (event) => {
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
    socket.addEventListener("close", (event) => {
      clearInterval(this.pingTimer);
      if (this.socket !== socket) return;
      this.socket = null;
      if (FINAL_CLOSE.has(event.code)) this.stopped = true;
      this.handlers.down?.(this.stopped, event.code);
      if (this.stopped) return;
      const delay = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)];
      this.failures += 1;
      this.retryTimer = setTimeout(() => this.open(), delay);
    });
  }
}
