import { site as fromTable } from "./pages";

export const site = {
  name: fromTable.name,
  description: fromTable.description,
  social: [
    { name: "X", href: "https://x.com/sendlater" },
    { name: "GitHub", href: "https://github.com/sendlater" },
  ],
} as const;
