// A request the service asks to be sent again, through the real CLI on the dynamic face, whose host logs on the
// stack's line: a long wait shows, naming the resource it is for; a short one (most of a faulty network's) is left
// to --debug, so that a throttled fleet's run does not keep hundreds of them in its summary.
import { expect, it } from "vitest";
import { emulatorControl } from "pulumi-audience/emulator";
import { programFolder, pulumiCli, pulumiStack, skipReason } from "./cli.ts";
import { emulatedService } from "./emulated.ts";

const service = emulatedService();
const PROGRAM = `import * as audience from "pulumi-audience";
export const id = new audience.Cohort("patient", { name: "Patient", streamName: "transactions" }).id;
`;

it.skipIf(!pulumiCli().dir)(`tells a long wait naming its resource, and leaves short ones to --debug${skipReason()}`, { timeout: 300_000 }, async () => {
  const stack = await pulumiStack({ program: programFolder({ "Pulumi.yaml": "name: retries\nruntime: nodejs\nmain: index.ts\n", "index.ts": PROGRAM }), env: { AUDIENCE_BASE_URL: service.baseUrl() } });
  await stack.config({ "audience:apiKey": await service.createAccount("retries") }, true);
  await stack.must(["up", "--yes"]);
  const id = (await stack.must(["stack", "output", "id"])).stdout.trim();
  const faults = emulatorControl(service.baseUrl().replace(/\/v1$/, ""));
  await faults.setFaults([{ method: "GET", path: "/cohorts/*", status: 503, retry_after: 1, count: 1 }]);
  const short = await stack.must(["refresh", "--yes"]);
  expect(short.output).not.toContain("sending it again");
  await faults.setFaults([{ method: "GET", path: "/cohorts/*", status: 503, retry_after: 6, count: 1 }]);
  const long = await stack.must(["refresh", "--yes"]);
  expect(long.output).toMatch(new RegExp(`Cohort "Patient": GET /cohorts/${id}: 503 [^\\n]*; sending it again in 6s \\(retry 1 of 10\\)`));
  expect(long.output).not.toContain("answered after");
});
