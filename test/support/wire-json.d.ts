// End-to-end tests read wire JSON and assert its shape at run time with `expect`, so a body is
// typed loosely here (lib.dom says `unknown`); everything else in the tests is type-checked.
export {};
declare global {
  interface Response {
    // biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked by the assertions that read it
    json(): Promise<any>;
  }
}
