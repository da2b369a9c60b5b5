module example.com/orderservice/worker

go 1.19
