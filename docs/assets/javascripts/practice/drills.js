export function startDrills(doc) {}
