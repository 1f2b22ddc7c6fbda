// Inputs every resource takes that steer the provider rather than describe the resource: which account, whether
// to wait for the build, how to delete, which existing resource to adopt. They are recorded, never sent.
import { z } from "zod";

export { PROVIDER_KEY } from "../../protocol/markers.ts";
export { CREDENTIAL_SOURCES_KEY, KIND_KEY } from "../markers.ts";
/**
 * Set by an engine that finds this resource's create pending from an interrupted run: when that create began (ms
 * since the epoch). The create first looks for what that attempt may have made. Never recorded, never sent.
 */
export const CREATE_STARTED_KEY = "__createStartedAt";

/**
 * Set with CREATE_STARTED_KEY by an engine that only wants to know what that attempt made (a destroy or a refresh):
 * the create looks and sends nothing; finding nothing fails with FAILURE_CODES.nothingMade. Never recorded, never sent.
 */
export const CREATE_LOOK_ONLY_KEY = "__createLookOnly";

/**
 * Set by an engine whose provider host cannot pass a step's timeout (the dynamic provider host): the resource's
 * customTimeouts for this step, in seconds. Never recorded, never sent.
 */
export const STEP_TIMEOUT_KEY = "__timeoutSeconds";

/** How long `waitFor: "ready"` waits when `waitTimeoutSeconds` is not given. */
export const DEFAULT_WAIT_TIMEOUT_SECONDS = 1800;

// Each control is documented by its description, which the program types and the package schema read.
export const controlsSchema = z.strictObject({
  account: z.string().min(1, { error: "must name an entry of audience:accounts" }).optional()
    .describe("Name of an entry of the `audience:accounts` stack config map (`{apiKey, baseUrl}`) to manage this resource in; the default account (`audience:apiKey` / `audience:baseUrl`) when absent. Naming another account replaces the resource: created there, then deleted from the first."),
  adoptId: z.string().min(1, { error: "must be the id of an existing resource" }).optional()
    .describe("Id of an existing resource to take over instead of creating one: it is read, merge-patched to these inputs and managed from then on. (Dynamic resources cannot take Pulumi's `import` option; native ones can.)"),
  waitFor: z.enum(["ready", "none"], { error: 'must be "ready" or "none"' }).optional()
    .describe("`\"ready\"`: create and update wait until the resource has built; a failed build fails the step."),
  waitTimeoutSeconds: z.number({ error: "must be a number of seconds" }).positive({ error: "must be positive" }).optional()
    .describe(`How long \`waitFor: "ready"\` waits, in seconds (default ${DEFAULT_WAIT_TIMEOUT_SECONDS}).`),
  deletionMode: z.enum(["delete", "archive"], { error: 'must be "delete" or "archive"' }).optional()
    .describe("`\"archive\"` archives the resource on destroy instead of deleting it (default `\"delete\"`)."),
  cascadeTo: z.array(z.string()).optional()
    .describe("With `deletionMode: \"archive\"`: ids of downstream resources that may be archived along."),
  cascadeToAll: z.boolean().optional()
    .describe("With `deletionMode: \"archive\"`: archive everything downstream too."),
});

export type Controls = z.infer<typeof controlsSchema>;

export const CONTROL_KEYS = Object.keys(controlsSchema.shape) as readonly (keyof Controls)[];
