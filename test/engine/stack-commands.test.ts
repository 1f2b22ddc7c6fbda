// The commands messages tell a user to run name the stack as the user's own command line did, so that each runs as
// printed from where the user is.
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { stackCommand, stackCommandFor } from "../../provider/engine/stack-files.ts";

const here = process.cwd();

describe("a command for a stack", () => {
  it("leaves out what is the default: the current directory, the dev stack, the state under the program", () => {
    expect(stackCommand("run up", { cwd: here, stack: "dev" })).toBe("audience run up");
    expect(stackCommand("run up", { cwd: here, stack: "dev", stateDir: join(here, ".audience", "state") })).toBe("audience run up");
  });

  it("names the program's directory as a path from here, or whole when it is not below here", () => {
    expect(stackCommand("run up", { cwd: join(here, "examples", "shop"), stack: "dev" })).toBe("audience run up --cwd examples/shop");
    expect(stackCommand("run up", { cwd: "examples/shop", stack: "dev" })).toBe("audience run up --cwd examples/shop");
    expect(stackCommand("stack output", { cwd: "/elsewhere/shop", stack: "dev" })).toBe("audience stack output --cwd /elsewhere/shop");
  });

  it("names another stack and a moved state, and quotes a path a shell would split", () => {
    expect(stackCommand("run refresh", { cwd: here, stack: "prod", stateDir: "/elsewhere/states" })).toBe("audience run refresh --stack prod --state-dir /elsewhere/states");
    expect(stackCommand("pending", { cwd: "/my programs/it's", stack: "dev" })).toBe("audience pending --cwd '/my programs/it'\\''s'");
  });
});

describe("a command for the stack of a state file", () => {
  it("finds the program above the default layout", () => {
    expect(stackCommandFor(resolve("/elsewhere/shop/.audience/state/prod.json"), "stack restore")).toBe("audience stack restore --cwd /elsewhere/shop --stack prod");
    expect(stackCommandFor(join(here, ".audience", "state", "dev.json"), "stack restore")).toBe("audience stack restore");
  });

  it("names a moved state's directory, and the command line's own place when it is known", () => {
    expect(stackCommandFor("/elsewhere/states/dev.json", "pending")).toBe("audience pending --state-dir /elsewhere/states");
    expect(stackCommandFor("/elsewhere/states/dev.json", "pending", { cwd: "/elsewhere/shop", stack: "dev", stateDir: "/elsewhere/states" })).toBe("audience pending --cwd /elsewhere/shop --state-dir /elsewhere/states");
  });
});
