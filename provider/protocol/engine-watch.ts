// The engine that started a provider process may be killed outright (SIGKILL: a cancelled CI job), which tells the
// process nothing: its address then refuses connections, and the process exits instead of lingering for minutes
// (Pulumi's own plugins health-check the engine the same way). Only an engine seen once is watched for going away.
import { connect } from "node:net";

/** How often the engine's address is tried. */
const EVERY_MS = 2_000;

/** Whether something accepts connections at `host:port` (a refusal says no; anything else is not taken as gone). */
function answers(address: string): Promise<boolean | undefined> {
  const at = address.lastIndexOf(":");
  const [host, port] = [address.slice(0, at).replace(/^\[|\]$/g, ""), Number(address.slice(at + 1))];
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: EVERY_MS });
    socket.once("connect", () => { socket.destroy(); resolve(true); });
    socket.once("timeout", () => { socket.destroy(); resolve(undefined); });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED" ? false : undefined));
  });
}

/** Calls `gone` once when the engine at `address`, having answered, refuses connections; the watch never holds the process open. */
export function whenEngineGone(address: string, gone: () => void, everyMs = EVERY_MS): void {
  let seen = false;
  const probe = () => void answers(address).then((up) => {
    if (up === true) seen = true;
    else if (up === false && seen) {
      clearInterval(timer);
      gone();
    }
  });
  const timer = setInterval(probe, everyMs);
  timer.unref();
  // At once too: an engine killed within the first interval would otherwise never have been seen.
  probe();
}
