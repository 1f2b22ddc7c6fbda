// Names of delivered columns, exactly as the spec writes them, and which of them are billed.

export const outcomeColumn = (id: string, measure: "percentile" | "probability" | "lift") => `svc_outcome_${id}_propensity_${measure}`;
export const personaColumn = (id: string) => `svc_persona_set_${id}_persona_id`;
export const recommenderColumn = (id: string, measure: "rank" | "uncalibrated_probability") => `svc_recommender_${id}_${measure}`;
export const forecastColumn = (id: string) => `svc_forecast_${id}_value`;
export const cohortColumn = (id: string) => `svc_cohort_${id}_member`;

export const LOCATION_DISTANCE = "svc_location_distance";
export const LOCATION_NAME = "svc_location_name";
export const LOCATION_REFERENCE_KEY = "svc_location_reference_key";
/** The distance column of a `human_readable` target names its unit. */
export const humanReadableDistance = (units: "meters" | "miles") => `${LOCATION_DISTANCE}_${units === "miles" ? "mi" : "m"}`;

/** Identity columns of identified deliveries and of lookup requests. */
export const PERSON_IDENTITY = ["person_first_name", "person_last_name", "house_number_and_street", "city", "state", "postcode", "email", "phone"] as const;
export const ADDRESS_IDENTITY = ["house_number_and_street", "city", "state", "postcode"] as const;
export const HASHED_IDENTITY = ["email_sha256", "phone_sha256", "address_sha256"] as const;

/** Prediction columns billed per delivered row: every outcome, persona, recommender and forecast column but lift. */
export function isBilledPrediction(column: string): boolean {
  const name = column.replace(/^(avg|count)_/, "");
  if (/_propensity_lift(_as_of_attainment)?$/.test(name)) return false;
  return /^svc_(outcome|persona_set|recommender|forecast)_/.test(name);
}

export function billedColumns(columns: readonly string[]): string[] {
  return columns.filter(isBilledPrediction);
}
