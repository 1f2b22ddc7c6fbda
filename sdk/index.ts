// The service's TypeScript SDK, usable without Pulumi: the contract and the HTTP client.
export * from "./contract/index.ts";
export * from "./client/index.ts";
