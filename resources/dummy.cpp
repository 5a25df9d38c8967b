// Anchors the resource library; the data lives in the .json files beside it.
