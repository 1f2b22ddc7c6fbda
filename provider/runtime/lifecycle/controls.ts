// Inputs every resource takes that steer the provider rather than describe the resource: which account, whether
// to wait for the build, how to delete, which existing resource to adopt. They are recorded, never sent.
import { z } from "zod";

export { PROVIDER_KEY } from "../markers.ts";
/** Names the family of a resource's inputs: the dynamic provider host does not pass the type token. */
export const KIND_KEY = "__kind";

export const controlsSchema = z.strictObject({
  account: z.string().min(1, { error: "must name an entry of audience:accounts" }).optional(),
  adoptId: z.string().min(1, { error: "must be the id of an existing resource" }).optional(),
  waitFor: z.enum(["ready", "none"], { error: 'must be "ready" or "none"' }).optional(),
  waitTimeoutSeconds: z.number({ error: "must be a number of seconds" }).positive({ error: "must be positive" }).optional(),
  deletionMode: z.enum(["delete", "archive"], { error: 'must be "delete" or "archive"' }).optional(),
  cascadeTo: z.array(z.string()).optional(),
  cascadeToAll: z.boolean().optional(),
});

export type Controls = z.infer<typeof controlsSchema>;

export const CONTROL_KEYS = Object.keys(controlsSchema.shape) as readonly (keyof Controls)[];
