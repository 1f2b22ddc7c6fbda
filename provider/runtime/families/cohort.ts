// Cohorts: a stream condition's operator must suit its property's type, which only the account tells (the stream's
// declarations and the data maps of the datasets that fill it); preview asks, as the service judges at create.
import { judgedStreamConditions, streamConditionErrors, streamPropertyTypes } from "pulumi-audience/sdk/contract";
import type { FamilyExtras } from "./family.ts";

export const cohorts: FamilyExtras = {
  async accountCheck(calls, { wire }, recorded) {
    if (!Array.isArray(wire.stream_conditions) || wire.stream_conditions.length === 0) return [];
    // Conditions recorded as they are were judged when they were sent: a plan that keeps them asks nothing.
    const before = recorded();
    if (judgedStreamConditions(wire, before).length === 0) return [];
    const [streams, datasets] = await Promise.all([calls.client.list("streams"), calls.client.list("datasets")]);
    return streamConditionErrors(wire, before, streamPropertyTypes(String(wire.stream_name), streams, datasets));
  },
};
