// tapable's hook classes by file (kernel/src/hooks.ts imports only the three it uses); the
// package declares types for its index only.
declare module 'tapable/lib/AsyncSeriesBailHook.js' {
  import { AsyncSeriesBailHook } from 'tapable';
  export default AsyncSeriesBailHook;
}
declare module 'tapable/lib/AsyncSeriesHook.js' {
  import { AsyncSeriesHook } from 'tapable';
  export default AsyncSeriesHook;
}
declare module 'tapable/lib/AsyncSeriesWaterfallHook.js' {
  import { AsyncSeriesWaterfallHook } from 'tapable';
  export default AsyncSeriesWaterfallHook;
}
