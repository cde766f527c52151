// @preact/signals-react imports the use-sync-external-store shim, which exists for React 17 and
// older; React 19 has the hook itself. vite.config.ts points the shim here, saving its bytes.
export { useSyncExternalStore } from "react";
