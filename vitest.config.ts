import { readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The run's Node processes (workers, and the CLIs, programs, plugins and hosts started with their environment) keep
// the compiled code of the modules they load for the next: most of an end-to-end test's time is processes starting.
process.env["NODE_COMPILE_CACHE"] ??= fileURLToPath(new URL("./node_modules/.cache/audience-tests/compile", import.meta.url));

/**
 * Engine tests that run in one process (plans, steps, progress; programs through test/engine/in-process-runtime.ts):
 * quick, so they stay in the unit run.
 */
const IN_PROCESS_ENGINE = [
  "test/engine/engine.test.ts",
  "test/engine/state.test.ts",
  "test/engine/secrets.test.ts",
  "test/engine/parallel.test.ts",
  "test/engine/plans.test.ts",
  "test/engine/step-generator.test.ts",
  "test/engine/timeouts.test.ts",
  "test/engine/providers.test.ts",
  "test/engine/progress.test.ts",
  "test/engine/review.test.ts",
  "test/engine/stack-commands.test.ts",
];

/**
 * Tests that need a process boundary to show what they check: whole programs through the engine and the CLI,
 * Pulumi's own hosts started from an installed package, kills, locks between processes, installs, what a new process
 * loads. `npm run test:unit` leaves them out for a quick answer; `npm run test:e2e` runs only them; `npm test` runs
 * both.
 */
const E2E = [
  // The `audience` command as a child process; the rest of test/cli (rendering, the extension) runs in one process.
  "test/cli/bundles.test.ts",
  "test/cli/demo.test.ts",
  "test/cli/new.test.ts",
  "test/cli/pending.test.ts",
  "test/cli/pending-export.test.ts",
  "test/cli/stack.test.ts",
  "test/cli/usage.test.ts",
  ...readdirSync(new URL("./test/engine", import.meta.url)).filter((f) => f.endsWith(".test.ts")).map((f) => `test/engine/${f}`).filter((f) => !IN_PROCESS_ENGINE.includes(f)),
  "test/provider/cli-host.test.ts",
  "test/provider/host-process.test.ts",
  "test/provider/generate.test.ts",
  "test/provider/secrets.test.ts",
  "test/plugin/install.test.ts",
  "test/plugin/launch.test.ts",
  "test/plugin/engine-log.test.ts",
  "test/provider/lazy-closure.test.ts",
  "test/provider/face-load.test.ts",
  "test/provider/promise-stacks.test.ts",
  "test/provider/runtime-traces.test.ts",
  "test/emulator/persistence.test.ts",
  "test/emulator/full-disk.test.ts",
  "test/drift/fleet.test.ts",
  // Programs through the real `pulumi` CLI (npm run pulumi:install).
  ...readdirSync(new URL("./test/pulumi", import.meta.url)).filter((f) => f.endsWith(".test.ts")).map((f) => `test/pulumi/${f}`),
];

export default defineConfig({
  // Test files load the TypeScript sources (vitest starts its workers with this condition too). Programs and hosts
  // the engine starts from a test get no NODE_OPTIONS from here: they run the built dist/ (test/global-setup.ts), but
  // where a test asks for sources.
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"], externalConditions: ["source"] } },
  test: {
    reporters: ["default", "./test/summary-reporter.ts"],
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One worker more than cores: a whole-program test spends much of its time waiting on the processes it starts and
    // on the emulator (one worker per core kept 1.55 of 2 cores busy through a run).
    maxWorkers: availableParallelism() + 1,
    projects: [
      {
        extends: true,
        // Files share their workers' loaded modules (the emulator, the contract, @pulumi/pulumi load once per worker,
        // not once per file: about half the project's time); each file must leave its worker as it found it.
        test: { name: "unit", include: ["test/**/*.test.ts"], exclude: E2E, isolate: false, setupFiles: ["./test/worker-hygiene.ts"] },
      },
      { extends: true, test: { name: "e2e", include: E2E } },
    ],
  },
});
