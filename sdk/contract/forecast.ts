// Forecast: predicted number / value of a person's events; seeded by the service for accounts with access.
import { z } from "zod";
import { body, defineFamily, name, patchOf, responseOf } from "./common.ts";
import type { MemberDocs } from "./docs.ts";

/** Only id and name are shown by the spec; the service creates forecasts itself. */
const shape = { name };

export const forecastCreate = body(shape);
export const forecastPatch = patchOf(shape);
export const forecastResponse = responseOf(shape, {});
export type ForecastResponse = z.output<typeof forecastResponse>;

/** Field docs of forecasts, by member path (see docs.ts): only the common members. */
export const forecastDocs = {} as const satisfies MemberDocs;

export const forecast = defineFamily({
  name: "forecast",
  className: "Forecast",
  collection: "forecasts",
  create: forecastCreate,
  patch: forecastPatch,
  response: forecastResponse,
  creatable: false,
  deletable: false,
});
