// This package's names on the wire: the engine never reads them (it is told through its extension).
import { DYNAMIC_TYPE_ROOT } from "../protocol/markers.ts";

/** The Pulumi package this provider is: `audience:index:Scope` natively, `pulumi-nodejs:dynamic/audience:Scope` dynamically. */
export const PACKAGE = "audience";
/** The type token of this package's dynamic resources, before the class name. */
export const DYNAMIC_TYPE_PREFIX = `${DYNAMIC_TYPE_ROOT}${PACKAGE}:`;
