// Forecast: predicted number / value of a person's events; seeded by the service for accounts with access.
import { z } from "zod";
import { body, defineFamily, name, patchOf, responseOf } from "./common.ts";

/** Only id and name are shown by the spec; the service creates forecasts itself. */
const shape = { name };

export const forecastCreate = body(shape);
export const forecastPatch = patchOf(shape);
export const forecastResponse = responseOf(shape, {});
export type ForecastResponse = z.output<typeof forecastResponse>;

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
