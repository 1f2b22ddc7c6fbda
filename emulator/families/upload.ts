// Uploads are files, not JSON documents: routes/uploads.ts serves them and /openapi.json describes them apart.
import { register } from "../routes/uploads.ts";
import type { EmulatorFamily } from "./family.ts";

export const upload: EmulatorFamily = {
  ownRoutesOnly: true,
  ownOpenApiPaths: true,
  routes: register,
};
