// Types of the vendored busboy vector files.
// deno-lint-ignore no-explicit-any
export declare const tests: any[];
