// What the page's classic scripts put on the window before its modules run: Observable Plot's
// browser build (d3 comes with it as `d3`, used by Plot alone). Undefined when it did not load.
declare var Plot: typeof import("@observablehq/plot") | undefined
