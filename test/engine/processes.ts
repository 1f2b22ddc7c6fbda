// Processes a test started and what they started in turn, read from /proc: to wait until a killed run's are gone.
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  return readdirSync("/proc").filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid ? [Number(d)] : [];
    } catch {
      return [];
    }
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (up to `limitMs`) until none of `pids` is alive; answers those still alive. */
export async function gone(pids: readonly number[], limitMs = 15_000): Promise<number[]> {
  for (let waited = 0; pids.some(alive) && waited < limitMs; waited += 100) await sleep(100);
  return pids.filter(alive);
}
