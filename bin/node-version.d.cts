/** The Node versions this package runs on, as package.json `engines.node` says (">=22.18"). */
export declare const requiredNode: string;
/** The line to print when `version` (such as process.versions.node) is older than required; undefined when it is not. */
export declare function nodeProblem(version: string): string | undefined;
/** Stops the process with that line on stderr (exit status 1) when its Node is too old. */
export declare function stopIfTooOld(): void;
