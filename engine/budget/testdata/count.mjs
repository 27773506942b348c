// Records the reference token counts in tiktoken.json with OpenAI's tiktoken
// (npm package `tiktoken`, the WASM build of the Rust library).
// Usage, from the module root:
//   npm install --prefix /tmp/tk tiktoken
//   NODE_PATH=/tmp/tk/node_modules node engine/budget/testdata/count.mjs FILE... > engine/budget/testdata/tiktoken.json
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const require = createRequire(process.env.NODE_PATH + "/");
const { get_encoding } = require("tiktoken");
const version = JSON.parse(readFileSync(process.env.NODE_PATH + "/tiktoken/package.json", "utf8")).version;
const out = { tool: "npm tiktoken " + version, encodings: {} };
for (const name of ["o200k_base", "cl100k_base"]) {
  const enc = get_encoding(name);
  const counts = {};
  for (const f of process.argv.slice(2).sort()) {
    // encode_ordinary: special-token text counts as plain text, as in recite.
    counts[f] = enc.encode_ordinary(readFileSync(f, "utf8")).length;
  }
  out.encodings[name] = counts;
  enc.free();
}
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
