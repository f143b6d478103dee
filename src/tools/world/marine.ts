/**
 * Names of oceans and seas for the world map's `marine` labels. No package of the npm registry or
 * Debian ships marine label points (Natural Earth's marine polygons are not in world-atlas), so the
 * map carries this short list: each name at a point of open water where a cartographer would put it,
 * with its rank (1 oceans, 2 large seas, 3 smaller seas, gulfs and bays). Oceans are named more
 * than once where one name cannot cover them.
 */

export interface MarineName {
  name: string;
  lon: number;
  lat: number;
  rank: 1 | 2 | 3;
}

export const marineNames: readonly MarineName[] = [
  { name: 'Pacific Ocean', lon: -140, lat: 10, rank: 1 },
  { name: 'Pacific Ocean', lon: 165, lat: 25, rank: 1 },
  { name: 'Pacific Ocean', lon: -110, lat: -30, rank: 1 },
  { name: 'Atlantic Ocean', lon: -40, lat: 30, rank: 1 },
  { name: 'Atlantic Ocean', lon: -15, lat: -25, rank: 1 },
  { name: 'Indian Ocean', lon: 80, lat: -20, rank: 1 },
  { name: 'Arctic Ocean', lon: 0, lat: 83, rank: 1 },
  { name: 'Southern Ocean', lon: 30, lat: -62, rank: 1 },
  { name: 'Southern Ocean', lon: -140, lat: -65, rank: 1 },
  { name: 'Mediterranean Sea', lon: 18, lat: 34.5, rank: 2 },
  { name: 'Caribbean Sea', lon: -75, lat: 15, rank: 2 },
  { name: 'Gulf of Mexico', lon: -90, lat: 25, rank: 2 },
  { name: 'South China Sea', lon: 114, lat: 13, rank: 2 },
  { name: 'Philippine Sea', lon: 132, lat: 20, rank: 2 },
  { name: 'Coral Sea', lon: 155, lat: -17, rank: 2 },
  { name: 'Tasman Sea', lon: 161, lat: -38, rank: 2 },
  { name: 'Arabian Sea', lon: 64, lat: 15, rank: 2 },
  { name: 'Bay of Bengal', lon: 88, lat: 14, rank: 2 },
  { name: 'Bering Sea', lon: -178, lat: 58, rank: 2 },
  { name: 'Sea of Okhotsk', lon: 150, lat: 55, rank: 2 },
  { name: 'Norwegian Sea', lon: 2, lat: 68, rank: 2 },
  { name: 'Barents Sea', lon: 40, lat: 74, rank: 2 },
  { name: 'Kara Sea', lon: 70, lat: 77, rank: 3 },
  { name: 'Laptev Sea', lon: 125, lat: 76, rank: 3 },
  { name: 'East Siberian Sea', lon: 163, lat: 73, rank: 3 },
  { name: 'Beaufort Sea', lon: -140, lat: 72, rank: 3 },
  { name: 'Greenland Sea', lon: -5, lat: 76, rank: 3 },
  { name: 'Labrador Sea', lon: -55, lat: 58, rank: 3 },
  { name: 'Hudson Bay', lon: -85, lat: 60, rank: 2 },
  { name: 'North Sea', lon: 3.5, lat: 56, rank: 2 },
  { name: 'Baltic Sea', lon: 19, lat: 57, rank: 3 },
  { name: 'Black Sea', lon: 34, lat: 43.3, rank: 2 },
  { name: 'Red Sea', lon: 38.5, lat: 20.5, rank: 3 },
  { name: 'Persian Gulf', lon: 51.5, lat: 27, rank: 3 },
  { name: 'Sea of Japan', lon: 135, lat: 40, rank: 3 },
  { name: 'East China Sea', lon: 126, lat: 29, rank: 3 },
  { name: 'Yellow Sea', lon: 123, lat: 35.5, rank: 3 },
  { name: 'Java Sea', lon: 111, lat: -5, rank: 3 },
  { name: 'Banda Sea', lon: 127, lat: -5.5, rank: 3 },
  { name: 'Arafura Sea', lon: 135, lat: -9.5, rank: 3 },
  { name: 'Timor Sea', lon: 127, lat: -11.5, rank: 3 },
  { name: 'Gulf of Guinea', lon: 2.5, lat: 2, rank: 3 },
  { name: 'Gulf of Alaska', lon: -145, lat: 57, rank: 3 },
  { name: 'Bay of Biscay', lon: -5, lat: 45.5, rank: 3 },
  { name: 'Weddell Sea', lon: -45, lat: -70, rank: 3 },
  { name: 'Ross Sea', lon: -175, lat: -74, rank: 3 },
  { name: 'Scotia Sea', lon: -45, lat: -57, rank: 3 },
  { name: 'Gulf of Aden', lon: 48, lat: 12.3, rank: 3 },
  { name: 'Mozambique Channel', lon: 41, lat: -18, rank: 3 },
  { name: 'Sargasso Sea', lon: -60, lat: 30, rank: 3 },
  { name: 'Andaman Sea', lon: 96, lat: 11, rank: 3 },
  { name: 'Celebes Sea', lon: 122, lat: 4, rank: 3 },
  { name: 'Gulf of California', lon: -111, lat: 28, rank: 3 },
];
