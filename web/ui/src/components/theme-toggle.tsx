import { useSignals } from "@preact/signals-react/runtime";
import { theme, toggleTheme } from "../lib/theme";
import { MoonIcon, SunIcon } from "./icons";

export function ThemeToggle() {
  useSignals();
  const next = theme.value === "dark" ? "light" : "dark";
  return (
    <button type="button" className="theme-toggle outline secondary" onClick={toggleTheme} aria-label={`Switch to ${next} theme`}>
      {theme.value === "dark" ? <SunIcon /> : <MoonIcon />}
    </button>
  );
}
