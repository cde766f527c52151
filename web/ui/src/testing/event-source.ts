import { vi } from "vitest";

/** A stand-in for the browser's EventSource, which jsdom lacks. */
export class FakeEventSource extends EventTarget {
  static readonly CLOSED = 2;
  static opened: FakeEventSource[] = [];
  readyState = 1;
  constructor(readonly url: string) {
    super();
    FakeEventSource.opened.push(this);
  }
  close() {
    this.readyState = FakeEventSource.CLOSED;
  }
  send(event: string, data: unknown) {
    this.dispatchEvent(new MessageEvent(event, { data: JSON.stringify(data) }));
  }
}

/** Stubs EventSource with FakeEventSource, none opened yet. Undo with vi.unstubAllGlobals(). */
export function stubEventSource() {
  FakeEventSource.opened = [];
  vi.stubGlobal("EventSource", FakeEventSource);
}
