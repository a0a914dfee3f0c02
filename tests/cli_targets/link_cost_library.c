/* One empty function in a shared library of its own: see link_cost.c. */
void link_cost_one_function(void);

void link_cost_one_function(void) {}
