// Lint for the SPA (flat config). Besides the recommended rules, it holds the house rules of
// DESIGN.md 12 and bulletproof-react's layers: a feature never imports another feature (what two
// features share moves to components/, lib/ or config/); shared code never imports a feature or
// the app; a feature never imports the app.
import { readdirSync } from "node:fs";
import js from "@eslint/js";
import importPlugin from "eslint-plugin-import";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

const features = readdirSync(new URL("./src/features", import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

export default tseslint.config(
  { ignores: ["dist", ".ssr", "node_modules"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["src/**/*.{ts,tsx}"],
    languageOptions: { globals: globals.browser },
    plugins: { import: importPlugin, "react-hooks": reactHooks },
    settings: {
      "import/resolver": { node: { extensions: [".ts", ".tsx", ".js", ".json"] } },
    },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      "import/no-restricted-paths": [
        "error",
        {
          zones: [
            ...features.map((feature) => ({
              target: `./src/features/${feature}`,
              from: "./src/features",
              except: [`./${feature}`],
              message: "A feature does not import another feature: move what they share to components/, lib/ or config/.",
            })),
            // The layers of bulletproof-react: shared code never imports a feature or the app,
            // and features never import the app; the app composes them.
            ...["components", "lib", "config"].map((shared) => ({
              target: `./src/${shared}`,
              from: ["./src/features", "./src/app"],
              message: "Shared code (components/, lib/, config/) never imports a feature or the app: it is used by them.",
            })),
            {
              target: "./src/features",
              from: "./src/app",
              message: "A feature never imports the app: the app composes the features (pass what it needs as props or move it to lib/).",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["scripts/**/*.mjs", "*.config.{js,ts}"],
    languageOptions: { globals: globals.node },
  },
  {
    // Node scripts that hand functions to the page they drive.
    files: ["e2e/**/*.mjs"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
