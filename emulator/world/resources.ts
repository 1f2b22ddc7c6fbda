// How the world reads an account's resources: wire (snake_case) documents by collection and id.
export type Doc = Record<string, unknown>;

export interface Resources {
  get(collection: string, id: string): Doc | undefined;
  list(collection: string): Doc[];
}

/** Resources held in memory: tests and benchmarks build their account with it. */
export function memoryResources(collections: Record<string, Doc[]>): Resources {
  return {
    get: (collection, id) => collections[collection]?.find((doc) => doc.id === id),
    list: (collection) => collections[collection] ?? [],
  };
}

export function docs(value: unknown): Doc[] {
  return Array.isArray(value) ? value.filter((v): v is Doc => typeof v === "object" && v !== null) : [];
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function obj(value: unknown): Doc | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Doc) : undefined;
}
