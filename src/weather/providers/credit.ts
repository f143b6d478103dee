/**
 * Who a picture of weather data credits. The catalog records each keyframe's `attribution` as the
 * ingest or fetch gave it: the fetched models' short labels below (GFS keeps the hosted service's
 * own label, `GFS`), or an operator's `--attribution`. An image drawn from the data (a static map
 * with `weather=`) names the source as its terms ask: NOAA for GFS, and ECMWF with the licence of
 * its open data, CC BY 4.0. Any other label is shown as it was recorded.
 */

/** The attribution each fetched model's keyframes carry in the catalog. */
export const PROVIDER_ATTRIBUTIONS = {
  gfs: 'GFS',
  ifs: 'ECMWF IFS open data, CC-BY-4.0',
  'aifs-single': 'ECMWF AIFS Single open data, CC-BY-4.0',
} as const;

const CREDITS: Record<keyof typeof PROVIDER_ATTRIBUTIONS, string> = {
  gfs: 'NOAA GFS',
  ifs: '© ECMWF IFS, CC BY 4.0',
  'aifs-single': '© ECMWF AIFS Single, CC BY 4.0',
};

/** The credit an image of a variable shows, from the attribution the catalog records for it. */
export function weatherCredit(attribution: string): string {
  const label = attribution.trim();
  for (const [model, recorded] of Object.entries(PROVIDER_ATTRIBUTIONS)) {
    if (label === recorded) return CREDITS[model as keyof typeof PROVIDER_ATTRIBUTIONS];
  }
  return label;
}
