import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts", "src/promise.ts"],
  format: ["esm"],
  target: "node22",
  sourcemap: true,
  clean: true,
  dts: false // TypeScript 7 declarations come from `tsc -p tsconfig.build.json`
})
