// Refuses a Node.js older than the one Ratelock runs on, in one line that says how to get it.
// Plain JavaScript on purpose: an old Node fails on our TypeScript before it could say anything.
// Loaded with `node --import` before `pnpm start` and `pnpm ratelock`, run before `pnpm test`.
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(
    `Ratelock needs Node.js 24 (at least 22.19); this is ${process.version}. Get it from the npm registry: ` +
      `npm i --prefix ~/.local/node24 node@24 && export PATH="$HOME/.local/node24/node_modules/.bin:$PATH"`
  )
  process.exit(1)
}
