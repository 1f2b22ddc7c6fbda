// Resource URNs as Pulumi writes them, and the types of the resources the engine itself keeps in a stack.

/** The root of every stack: its outputs are the stack's outputs. */
export const STACK_TYPE = "pulumi:pulumi:Stack";
/** The default provider every dynamic resource records, created implicitly as the Pulumi engine does. */
export const PROVIDER_TYPE = "pulumi:providers:pulumi-nodejs";
export const STACK_REFERENCE_TYPE = "pulumi:pulumi:StackReference";

/** `urn:pulumi:<stack>::<project>::<parent type>$<type>::<name>`; a child of the stack carries no parent type. */
export function makeUrn(stack: string, project: string, type: string, name: string, parent: string): string {
  const parentType = parent ? (parent.split("::")[2] ?? "") : STACK_TYPE;
  const qualified = parentType === STACK_TYPE ? type : `${parentType}$${type}`;
  return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}

export function urnName(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

export function urnType(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

/** Dynamic resources (`pulumi-nodejs:dynamic/...`), the only custom resources the local engine runs. */
export function isDynamic(type: string): boolean {
  return type.startsWith("pulumi-nodejs:");
}
