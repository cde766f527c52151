export const site = {
  name: "Sendlater",
  description: "Send important messages when the time is right.",
  social: [
    { name: "X", href: "https://x.com/sendlater" },
    { name: "GitHub", href: "https://github.com/sendlater" },
  ],
} as const;
