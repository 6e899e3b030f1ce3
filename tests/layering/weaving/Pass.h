// A file of the layering check's own test (tests/layering/il/BackArrow.h includes it).
