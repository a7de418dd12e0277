// A live view of the event log: the newest `history` events from the list endpoint, then the
// Server-Sent Events stream resumed after the last of them, so nothing falls in between.
import { call, eventsPath, streamURL } from './api.js';

export class Feed {
  /**
   * @param {object} handlers {event(e, live), lagged(missed), shutdown(), status(state, text)}
   */
  constructor(handlers, history = 300) {
    this.handlers = handlers;
    this.history = history;
    this.source = null;
    this.generation = 0;
  }

  /** (Re)starts on a scope (project id, or null for every project) with filters. */
  async start(scope, filters = {}) {
    this.stop();
    const generation = ++this.generation;
    this.scope = scope;
    this.filters = filters;
    this.status('connecting', 'connecting…');
    let last = -1;
    try {
      const list = await call('GET', eventsPath(scope, { ...filters, limit: this.history }, false));
      if (generation !== this.generation) return;
      for (const event of list.events ?? []) {
        if (scope) event.project ??= scope;
        this.handlers.event(event, false);
        last = Math.max(last, event.sequence);
      }
    } catch (error) {
      if (generation !== this.generation) return;
      this.status('closed', `events: ${error.message}`);
      this.retry(generation);
      return;
    }
    // -1 replays whatever the log kept: nothing matched a moment ago, so that is only what came since.
    this.open(generation, eventsPath(scope, { ...filters, lastEventId: last }, true));
  }

  open(generation, path) {
    const source = new EventSource(streamURL(path));
    this.source = source;
    source.addEventListener('open', () => {
      if (generation === this.generation) this.status('open', 'live');
    });
    source.addEventListener('message', (message) => {
      if (generation !== this.generation) return;
      let event;
      try { event = JSON.parse(message.data); } catch { return; }
      this.handlers.event(event, true);
    });
    source.addEventListener('lagged', (message) => {
      if (generation !== this.generation) return;
      let missed = 0;
      try { missed = JSON.parse(message.data).missed ?? 0; } catch { /* keep 0 */ }
      this.handlers.lagged?.(missed);
    });
    source.addEventListener('shutdown', () => {
      if (generation !== this.generation) return;
      // The emulator is stopping: a restarted one has a new log, so start over once it answers.
      source.close();
      this.status('closed', 'emulator stopped');
      this.handlers.shutdown?.();
      this.retry(generation);
    });
    source.addEventListener('error', () => {
      if (generation !== this.generation) return;
      if (source.readyState === EventSource.CLOSED) {
        this.status('closed', 'disconnected');
        this.retry(generation);
      } else {
        this.status('connecting', 'reconnecting…');
      }
    });
  }

  retry(generation) {
    setTimeout(async () => {
      if (generation !== this.generation) return;
      try {
        await call('GET', '/health');
      } catch {
        this.retry(generation);
        return;
      }
      if (generation === this.generation) {
        this.handlers.restarted?.();
        this.start(this.scope, this.filters);
      }
    }, 2000);
  }

  status(state, text) {
    this.handlers.status?.(state, text);
  }

  stop() {
    this.generation++;
    this.source?.close();
    this.source = null;
  }
}
