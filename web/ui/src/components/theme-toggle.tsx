import { useSignals } from "@preact/signals-react/runtime";
import { useHydrated } from "../lib/hydrated";
import { theme, toggleTheme } from "../lib/theme";
import { MoonIcon, SunIcon } from "./icons";

export function ThemeToggle() {
  useSignals();
  // The prerendered HTML is light (lib/hydrated.ts).
  const dark = useHydrated() && theme.value === "dark";
  const next = dark ? "light" : "dark";
  return (
    <button type="button" className="theme-toggle outline secondary" onClick={toggleTheme} aria-label={`Switch to ${next} theme`}>
      {dark ? <SunIcon /> : <MoonIcon />}
    </button>
  );
}
