/**
 * The phones' SSE connections (`GET /events`) in this process, several per device, and the
 * events Herald pushes on them, framed as the reference server frames them
 * (`event: <Type>\ndata: <json>\n\n`, a `:keepalive` comment every 15 s). There is no replay and
 * no event id: the app pulls on every (re)connection, so an event missed while a phone was not
 * connected costs nothing. Each keep-alive written counts as the device being seen.
 */
import type { Logger } from 'pino';

/** The events the app acts on (app `modules/events/ExternalEventType.kt`). */
export type DeviceEvent =
  { type: 'MessageEnqueued' } | { type: 'MessageCancelled'; messageId: string } | { type: 'SettingsUpdated' } | { type: 'WebhooksUpdated' };

/** Where one connection's bytes go: a writable stream that can be ended. */
export interface EventSink {
  write(chunk: string): boolean;
  end(): void;
}

export interface EventHubOptions {
  keepaliveMs: number;
  /** Called for each keep-alive written (presence): the device is still there. */
  onKeepalive: (deviceId: string) => void;
  logger: Logger;
}

interface Connection {
  sink: EventSink;
  timer: NodeJS.Timeout;
}

/** Frames an event as the app's SSE client reads it. */
export function frame(event: DeviceEvent): string {
  const data = event.type === 'MessageCancelled' ? JSON.stringify({ messageId: event.messageId }) : 'null';
  return `event: ${event.type}\ndata: ${data}\n\n`;
}

export class DeviceEventHub {
  private readonly connections = new Map<string, Set<Connection>>();
  /** Devices with a MessageEnqueued to send at the end of this turn: many offers, one pull. */
  private readonly enqueued = new Set<string>();
  private flushing = false;

  constructor(private readonly opts: EventHubOptions) {}

  /** Registers a connection; returns the function that removes it (call it when the socket closes). */
  attach(deviceId: string, sink: EventSink): () => void {
    const conn: Connection = {
      sink,
      timer: setInterval(() => {
        if (sink.write(':keepalive\n\n') !== false) this.opts.onKeepalive(deviceId);
      }, this.opts.keepaliveMs),
    };
    conn.timer.unref();
    let set = this.connections.get(deviceId);
    if (!set) this.connections.set(deviceId, (set = new Set()));
    set.add(conn);
    return () => {
      clearInterval(conn.timer);
      set.delete(conn);
      if (set.size === 0 && this.connections.get(deviceId) === set) this.connections.delete(deviceId);
    };
  }

  /** Open connections of a device in this process. */
  connected(deviceId: string): number {
    return this.connections.get(deviceId)?.size ?? 0;
  }

  /** Sends an event to every connection of the device now; returns how many got it. */
  publish(deviceId: string, event: DeviceEvent): number {
    const set = this.connections.get(deviceId);
    if (!set) return 0;
    const bytes = frame(event);
    let sent = 0;
    for (const c of set) {
      try {
        c.sink.write(bytes);
        sent++;
      } catch (err) {
        this.opts.logger.warn({ err, deviceId }, 'cannot write to an SSE connection; the phone pulls again when it reconnects');
      }
    }
    return sent;
  }

  /** Asks the device to pull: one MessageEnqueued per device per turn of the event loop, however many offers. */
  messageEnqueued(deviceId: string): void {
    this.enqueued.add(deviceId);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => {
      this.flushing = false;
      const ids = [...this.enqueued];
      this.enqueued.clear();
      for (const id of ids) this.publish(id, { type: 'MessageEnqueued' });
    });
  }

  /** Ends every connection (shutdown); the phones reconnect to whichever process answers next. */
  closeAll(): void {
    for (const set of this.connections.values()) {
      for (const c of set) {
        clearInterval(c.timer);
        try {
          c.sink.end();
        } catch {
          // Already gone.
        }
      }
    }
    this.connections.clear();
  }
}
