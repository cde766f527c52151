import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

// Text files worth compressing; index.html is left out: the server fills in each page's head
// tags and compresses the result as it sends it.
const compressible = /\.(js|css|svg|json|webmanifest|txt|xml|ico)$/;

/**
 * Writes a brotli (.br) and a gzip (.gz) copy, at the highest levels, beside every compressible
 * file of the build that they make smaller, for the server to send as they are (web/spa.go).
 */
function precompress(): Plugin {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
  return {
    name: "sendlater-precompress",
    apply: "build",
    writeBundle({ dir = "dist" }) {
      for (const file of walk(dir).filter((path) => compressible.test(path))) {
        const data = readFileSync(file);
        const br = brotliCompressSync(data, {
          params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
        });
        const gz = gzipSync(data, { level: 9 });
        if (gz.length < data.length) writeFileSync(`${file}.gz`, gz);
        if (br.length < data.length) writeFileSync(`${file}.br`, br);
      }
    },
  };
}

/**
 * Preloads the text face's files (app.css's @font-face, hashed by the build), so the browser asks
 * for them with the stylesheet, not after it: the fallback shows first (font-display: swap) and
 * Inter replaces it sooner.
 */
function preloadFonts(): Plugin {
  return {
    name: "sendlater-preload-fonts",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(_html, { bundle }) {
        return Object.keys(bundle ?? {})
          .filter((file) => /inter-latin-\d+-normal-[\w-]+\.woff2$/.test(file))
          .sort()
          .map((file) => ({
            tag: "link",
            attrs: { rel: "preload", href: `/${file}`, as: "font", type: "font/woff2", crossorigin: "" },
            injectTo: "head" as const,
          }));
      },
    },
  };
}

export default defineConfig(({ mode, isSsrBuild }) => ({
  // The prerender's build (src/entry-server.tsx, for Node) is read once by scripts/prerender.mjs:
  // nothing of it is served, so nothing to compress or preload.
  plugins: isSsrBuild ? [react()] : [react(), preloadFonts(), precompress()],
  resolve: {
    alias: {
      "use-sync-external-store/shim/index.js": fileURLToPath(new URL("src/lib/use-sync-external-store.ts", import.meta.url)),
      // react-router's package exports name only its development build, with its warnings.
      ...(mode === "production" ? { "react-router": fileURLToPath(new URL("node_modules/react-router/dist/production/index.mjs", import.meta.url)) } : {}),
    },
  },
  css: {
    // Pico's SCSS still calls Sass functions that are deprecated; that is theirs to change.
    preprocessorOptions: { scss: { quietDeps: true } },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Every browser the app supports knows <link rel="modulepreload">: no polyfill in the entry.
    modulePreload: { polyfill: false },
    rolldownOptions: isSsrBuild
      ? {}
      : {
          output: {
            // What the first page needs (everything the entry imports statically) in one chunk:
            // one request, and one compression window instead of five small ones.
            codeSplitting: { groups: [{ name: "app", tags: ["$initial"] }] },
          },
        },
  },
  server: {
    proxy: { "/api": "http://localhost:8080" },
  },
  test: {
    environment: "jsdom",
    setupFiles: ["src/testing/setup.ts"],
    // As the waits in setup.ts: a loaded machine, not a hang.
    testTimeout: 20_000,
  },
}));
