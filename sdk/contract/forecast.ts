// Forecast: predicted number / value of a person's events; seeded by the service for accounts with access.
import { z } from "zod";
import { defineFamily } from "./family.ts";
import { name } from "./fields.ts";
import type { MemberDocs } from "./docs.ts";

/** Only id and name are shown by the spec; the service creates forecasts itself. */
const shape = { name };

/** The service's own forecasts say so: it refuses every change of them. */
const forecastAnswers = { managed: z.boolean().nullish() };

/** Field docs of forecasts, by member path (see docs.ts). */
export const forecastDocs = {
  managed: "Whether the service manages this forecast (every seeded one): managed resources are read-only.",
} as const satisfies MemberDocs;

export const forecast = defineFamily({
  name: "forecast",
  className: "Forecast",
  summary: "A forecast of people's events (number and value), seeded by the service for accounts with access: adopt one with `adoptId` or read it with `Forecast.get`.",
  collection: "forecasts",
  shape,
  answers: forecastAnswers,
  docs: forecastDocs,
  creatable: false,
  deletable: false,
  // The service's own (managed, read-only): archiving one is refused, so destroy forgets it.
  archivable: false,
});
