// The shell's icons (header; the drawer draws its own X, the toasts' is app.css's): Lucide's shapes
// (ISC licence) drawn inline, because the home page's script carries them and lucide-react's
// runtime would add 1.4 KB gzipped to it.
// Every other icon is lucide-react's, named in lucide.ts (web/ui/DESIGN.md, "Icons"). They are
// decorative: the button around each one keeps its aria-label.
import type { ReactNode } from "react";

// The stroke and size are app.css's (svg.icon), which keeps these bytes out of the home page's script.
export function Icon({ children }: { children: ReactNode }) {
  return (
    <svg className="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      {children}
    </svg>
  );
}

export function SunIcon() {
  return (
    <Icon>
      <circle cx="12" cy="12" r="4" />
      <path d="M12 2v2m0 16v2M4.9 4.9l1.4 1.4m11.4 11.4 1.4 1.4M2 12h2m16 0h2M6.3 17.7l-1.4 1.4M19.1 4.9l-1.4 1.4" />
    </Icon>
  );
}

export function MoonIcon() {
  return (
    <Icon>
      <path d="M12 3a6 6 0 0 0 9 9 9 9 0 1 1-9-9Z" />
    </Icon>
  );
}

export function MenuIcon() {
  return (
    <Icon>
      <path d="M4 6h16M4 12h16M4 18h16" />
    </Icon>
  );
}
