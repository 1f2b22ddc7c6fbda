// The dependencies scripts/build.ts bundles into the commands: plain modules, loaded whole. Each stays a
// dependency (a program or another package may import it), but a command never loads it from node_modules: yaml as
// its 70 files cost a command reading Pulumi.yaml about 20 ms of CPU more than from a bundle's chunk.
export const INLINED = ["zod", "commander", "yaml"];
