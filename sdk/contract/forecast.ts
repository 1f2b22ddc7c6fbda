// Forecast: predicted number / value of a person's events; seeded by the service for accounts with access.
import { z } from "zod";
import { body, COMMON_READ_ONLY, defineFamily, name, patchOf, responseOf } from "./common.ts";

/** Only id and name are shown by the spec; the service creates forecasts itself. */
const shape = { name };

export const forecastCreate = body(shape);
export const forecastPatch = patchOf(shape);
export const forecastResponse = responseOf(shape, {});
export type ForecastResponse = z.output<typeof forecastResponse>;

export const forecast = defineFamily({
  name: "forecast",
  collection: "forecasts",
  create: forecastCreate,
  patch: forecastPatch,
  response: forecastResponse,
  readOnly: COMMON_READ_ONLY,
  creatable: false,
  deletable: false,
});
