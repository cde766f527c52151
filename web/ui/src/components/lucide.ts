// The lucide-react icons the app uses, by name, each from its own module: the build ships only
// these, and a test loads a few small files, not the package's 1.3 MB index (2.5 s to load on a
// busy machine). The shell's icons are in icons.tsx (web/ui/DESIGN.md, "Icons").
export { default as CalendarClock } from "lucide-react/icons/calendar-clock";
export { default as Check } from "lucide-react/icons/check";
export { default as CreditCard } from "lucide-react/icons/credit-card";
export { default as Fingerprint } from "lucide-react/icons/fingerprint-pattern";
export { default as History } from "lucide-react/icons/history";
export { default as KeyRound } from "lucide-react/icons/key-round";
export { default as Lock } from "lucide-react/icons/lock";
export { default as MailPlus } from "lucide-react/icons/mail-plus";
export { default as Paperclip } from "lucide-react/icons/paperclip";
export { default as Pencil } from "lucide-react/icons/pencil";
export { default as Plus } from "lucide-react/icons/plus";
export { default as ShieldCheck } from "lucide-react/icons/shield-check";
export { default as SquareTerminal } from "lucide-react/icons/square-terminal";
export { default as TriangleAlert } from "lucide-react/icons/triangle-alert";
export { default as UserRound } from "lucide-react/icons/user-round";
export type { LucideIcon } from "lucide-react";
