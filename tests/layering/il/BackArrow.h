// A file of the layering check's own test: the IL layer including from the weaving layer, to its
// right, which the check must refuse.
#include "weaving/Pass.h"
