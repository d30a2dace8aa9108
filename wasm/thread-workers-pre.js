// The threaded flavour's prelude, inside the module's factory: the Worker its threads start in is the
// loader's Module.Worker where given (Node, which has no Web Worker), else the global one.
// eslint-disable-next-line no-var, no-unused-vars
var Worker = Module['Worker'] || globalThis.Worker;
