// The unit project runs its files one after another in shared workers (`isolate: false`): a file that leaves the
// process changed (timers faked, requests intercepted, the environment or directory switched) would decide the result
// of whichever file runs next. Each file must leave the worker as it found it; this check fails the file that did not.
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { afterAll, expect, vi } from "vitest";

const UNDICI_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

/** What a test file may use but must put back. */
function processFacts(): Record<string, unknown> {
  return {
    "fake timers": vi.isFakeTimers(),
    "http.request": http.request,
    "http.get": http.get,
    "http.ClientRequest": http.ClientRequest,
    "https.request": https.request,
    "net.Socket connect": net.Socket.prototype.connect,
    "net.connect": net.connect,
    "globalThis.fetch": globalThis.fetch,
    "undici's global dispatcher": (globalThis as Record<symbol, unknown>)[UNDICI_DISPATCHER],
    "working directory": process.cwd(),
    environment: JSON.stringify(Object.entries(process.env).sort(([a], [b]) => a.localeCompare(b))),
  };
}

// Taken before the test file is imported: importing a module may change the process too (nock does).
const before = processFacts();

afterAll(() => {
  const after = processFacts();
  const changed = Object.keys(before).filter((fact) => after[fact] !== before[fact]);
  expect(changed, "this file left the worker changed; put these back in its afterAll/afterEach").toEqual([]);
});
