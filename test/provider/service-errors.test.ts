// A service error as a program's author reads it: the account whose key was refused, the program's camelCase path
// for a field the service rejected, and the method, path, code and note of the request.
import { expect, it } from "vitest";
import { InvalidAuthorizationError, ValidationFailedError } from "pulumi-audience/sdk/client";
import { families } from "pulumi-audience/sdk/contract";
import { explained } from "../../provider/runtime/lifecycle/service-client.ts";

const info = { method: "POST", path: "/scopes", attempts: 1 };

it("a validation error names the program's camelCase path, not the wire's", () => {
  const error = new ValidationFailedError(info, 400, {
    code: "VALIDATION_FAILED",
    note: "The request body is invalid.",
    validationErrors: [{ path: "population.cohort_ids[0]", message: "no cohort with this id", context: { errorType: "not_found" } }],
  });
  expect((explained(error, families.scopes, undefined) as Error).message).toBe("POST /scopes: 400 VALIDATION_FAILED: population.cohortIds[0]: no cohort with this id");
});

it("a refused key says which account's key it was", () => {
  const error = new InvalidAuthorizationError({ method: "GET", path: "/cohorts", attempts: 1 }, 401, { code: "INVALID_AUTHORIZATION", note: "The API key is not valid." });
  expect((explained(error, families.cohorts, "eu") as Error).message).toBe('the service refused the API key of account "eu": GET /cohorts: 401 INVALID_AUTHORIZATION: The API key is not valid.');
  expect((explained(error, families.cohorts, undefined) as Error).message).toMatch(/^the service refused the API key of the default account \(audience:apiKey\): GET \/cohorts: 401/);
});
