import { useParams } from "react-router";
import { pageHead, paramValue, type SettingsSection } from "../../config/pages";
import { SettingsPage } from "../../features/settings/components/settings-page";
import { usePageHead } from "../../lib/head";

export default function SettingsRoute() {
  // Any other section shows the general settings.
  const section = paramValue("settings", useParams().section) as SettingsSection;
  usePageHead(pageHead("settings"));
  return <SettingsPage section={section} />;
}
