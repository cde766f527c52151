// The cost of sealing or opening a sealed message: one Argon2id at the envelope v1's parameters
// (64 MiB, 3 passes, 1 lane; docs/sealed.md) with hash-wasm, the WebAssembly the browser runs.
// Usage: node scripts/sealed-bench.mjs [runs]   (docs/benchmarks-history.md, issue 32)
import { randomBytes } from "node:crypto";
import { argon2id } from "hash-wasm";

const runs = Number(process.argv[2] ?? 5);
const times = [];
for (let i = 0; i < runs; i++) {
  const start = performance.now();
  await argon2id({
    password: "correct horse battery staple",
    salt: randomBytes(16),
    parallelism: 1,
    iterations: 3,
    memorySize: 65536,
    hashLength: 32,
    outputType: "binary",
  });
  times.push(Math.round(performance.now() - start));
}
console.log(`argon2id 64 MiB, t=3, p=1: ${times.join(", ")} ms`);
