// Resource URNs as Pulumi writes them, and the types of the resources the engine itself keeps in a stack.

/** The root of every stack: its outputs are the stack's outputs. */
export const STACK_TYPE = "pulumi:pulumi:Stack";
/** The provider of dynamic resources; its default one is created implicitly, as the Pulumi engine does. */
export const PROVIDER_TYPE = "pulumi:providers:pulumi-nodejs";
export const STACK_REFERENCE_TYPE = "pulumi:pulumi:StackReference";

/** `urn:pulumi:<stack>::<project>::<parent type>$<type>::<name>`; a child of the stack carries no parent type. */
export function makeUrn(stack: string, project: string, type: string, name: string, parent: string): string {
  const parentType = parent ? (parent.split("::")[2] ?? "") : STACK_TYPE;
  const qualified = parentType === STACK_TYPE ? type : `${parentType}$${type}`;
  return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}

/** The stack a URN belongs to (`urn:pulumi:<stack>::...`). */
export function urnStack(urn: string): string {
  return (urn.split("::")[0] ?? "").slice("urn:pulumi:".length);
}

/** The project a URN belongs to (`urn:pulumi:<stack>::<project>::...`). */
export function urnProject(urn: string): string | undefined {
  return urn.split("::")[1];
}

/** The `<project>/<stack>` a URN belongs to. */
export function urnOwner(urn: string): string {
  return `${urnProject(urn)}/${urnStack(urn)}`;
}

export function urnName(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

export function urnType(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}
