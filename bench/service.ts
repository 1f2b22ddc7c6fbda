// A server in its own process, for bench modules to measure over loopback. Prints one JSON line once listening.
// Started by measure.ts's startChild, bundled as the package's commands are:
//   service.ts emulator <cohorts>   the emulator, with an account holding <cohorts> seeded through its store (not
//                                   over HTTP)
//   service.ts bare <answers.json>  bare node:http answering recorded bytes
//   service.ts load                 the load: sends the requests a bench module asks for (POST /warm, /load,
//                                   /timings; see Loader), so neither the servers nor the bench share its process
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";
import { createApp } from "../emulator/app.ts";
import { FAMILIES } from "../emulator/families/index.ts";
import { newId } from "../emulator/ids.ts";
import type { StoredResource } from "../emulator/state.ts";
import { load, timings, warmUp, type HttpCall, type Load } from "./measure.ts";

/** What the bare server answers, by "METHOD pathname". */
export type Answers = Record<string, { status: number; type: string; body: string }>;

/** What the load process is asked to do, by path: its answer is the JSON of what the function answers. */
export interface Loader {
  /** `count` calls, `concurrency` at a time, answers forgotten. */
  "/warm": (ask: { origin: string; call: HttpCall; concurrency: number; count: number }) => null;
  /** `concurrency` callers sending `call` back to back for `ms`. */
  "/load": (ask: { origin: string; call: HttpCall; concurrency: number; ms: number }) => Load;
  /** Each call in turn; the milliseconds of each. A call answered with a status from 300 up fails them all. */
  "/timings": (ask: { origin: string; calls: HttpCall[] }) => number[];
}

export interface EmulatorReady {
  url: string;
  apiKey: string;
  /** Ids of seeded cohorts, oldest first (at most 1,000): nothing depends on them. */
  ids: string[];
  /** A file holding every seeded id, one a line. */
  idsFile: string;
}

const [mode, arg = "0"] = process.argv.slice(2);
// Stopped by the bench with SIGTERM: exit normally, so `--cpu-prof` can write its profile.
process.once("SIGTERM", () => process.exit(0));

if (mode === "load") {
  const tasks: { [P in keyof Loader]: (ask: Parameters<Loader[P]>[0]) => Promise<ReturnType<Loader[P]>> } = {
    "/warm": async ({ origin, call, concurrency, count }) => (await warmUp(origin, call, concurrency, count), null),
    "/load": ({ origin, call, concurrency, ms }) => load(origin, call, concurrency, ms),
    "/timings": async ({ origin, calls }) => {
      const one = new Pool(origin, { connections: 1, pipelining: 1 });
      try {
        return await timings(calls.length, async (i) => {
          const call = calls[i]!;
          const res = await one.request({ method: call.method, path: call.path, headers: call.headers ?? {}, body: call.body ?? null });
          const body = await res.body.text();
          if (res.statusCode >= 300) throw new Error(`${call.method} ${call.path}: ${res.statusCode} ${body}`);
        });
      } finally {
        await one.close();
      }
    },
  };
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).once("end", () => {
      const task = tasks[req.url as keyof Loader] as ((ask: unknown) => Promise<unknown>) | undefined;
      if (!task) return void res.writeHead(404).end();
      task(JSON.parse(text)).then(
        (answer) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer)),
        (error: Error) => res.writeHead(500).end(error.message),
      );
    });
  });
  server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
} else if (mode === "bare") {
  const answers = JSON.parse(readFileSync(arg, "utf8")) as Answers;
  const server = createServer((req, res) => {
    const answer = answers[`${req.method} ${(req.url ?? "/").split("?")[0]}`];
    // Bodies are read to the end, as the emulator reads them.
    req.resume();
    req.once("end", () => {
      if (!answer) return void res.writeHead(404).end();
      res.writeHead(answer.status, { "content-type": answer.type, "content-length": Buffer.byteLength(answer.body) }).end(answer.body);
    });
  });
  // The connection handling the emulator's Fastify server has: keep-alive for 72 s, no request timeout.
  server.keepAliveTimeout = 72_000;
  server.requestTimeout = 0;
  server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
} else {
  const count = Number(arg);
  const { app, ctx } = createApp({ families: FAMILIES });
  const { state } = ctx;
  const account = state.store.transaction(() => state.createAccount({ name: "Bench", quotas: { cohorts: 100_000_000 } }));
  const apiKey = state.store.transaction(() => state.addKey(account.id));
  // One cohort made as a client would, then copies of it with their own id and name.
  const made = await app.inject({ method: "POST", url: "/v1/cohorts", headers: { authorization: `Bearer ${apiKey}` }, payload: { name: "cohort template" } });
  if (made.statusCode !== 201) throw new Error(`seeding: ${made.statusCode} ${made.body}`);
  const template = state.resource("cohorts", (made.json() as { id: string }).id) as StoredResource;
  state.remove("cohorts", String(template.doc.id));
  const ids: string[] = [];
  state.store.transaction(() => {
    for (let i = 0; i < count; i++) {
      const id = newId();
      ids.push(id);
      state.save({ ...template, doc: { ...template.doc, id, name: `cohort ${i}` } });
    }
  });
  const idsDir = mkdtempSync(join(tmpdir(), "audience-bench-ids-"));
  process.once("exit", () => rmSync(idsDir, { recursive: true, force: true }));
  const idsFile = join(idsDir, "ids.txt");
  writeFileSync(idsFile, ids.join("\n"));
  await app.listen({ port: 0, host: "127.0.0.1" });
  const ready: EmulatorReady = { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, apiKey, ids: ids.slice(0, 1000), idsFile };
  console.log(JSON.stringify(ready));
}
